local s = string.rep("ab", 1000, ",")
local big = pcall(string.rep, "x", 1 << 40)
local t = {}
for i = 1, 100 do t[i] = s:sub(i, i + 3) .. string.format("%5.2f", i) end
local u = table.concat(t, ";")
local p = string.pack(">I4d", 7, 1.5)
return ng.constant(#u + #p + utf8.len("héllo") + s:byte(1))

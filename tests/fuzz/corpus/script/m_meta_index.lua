-- option tables whose reads call back into Lua while a node is being built
local opts = setmetatable({}, {__index = function(t, k)
  collectgarbage()
  if k == "element_size" then ng.perlin{} return 4 end
  if k == "seed" then return ng.simplex{} and 3 end
end})
local n = ng.perlin(opts)
local r = setmetatable({}, {__index = function() collectgarbage() return nil end})
local m = ng.fit(n, -1, 1, 0, 1)
ng.param("p", 1, setmetatable({}, {__index = function(_, k) collectgarbage() return k == "doc" and "d" or nil end}))
return n + ng.perlin{range = setmetatable({0, 1}, {__index = function() ng.x() collectgarbage() return 1 end})}

local t = {}
for i = 1, 1e7 do t[i] = {i} end

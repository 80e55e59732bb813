-- Bench row: a chain of three domain warps, each by its own simplex vector
-- field, over a simplex source; 2D. Cost: one scalar and three vector
-- noises per sample, plus the displaced positions of every level.
local n = ng.simplex{element_size = 50}
for level = 1, 3 do
    n = ng.warp{source = n, by = ng.simplex{element_size = 50, seed = level, output = "vector"}, amount = 20}
end
return n

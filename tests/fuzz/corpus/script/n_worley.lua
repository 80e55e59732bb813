local a = ng.worley{element_size = 4, feature = "f2-f1", metric = "manhattan", jitter = 0.5}
local b = ng.worley{element_size = 5, feature = "cell", metric = "chebyshev", range = {-2, 3}}
local c = ng.worley{element_size = 4, feature = "f2", element_scale = {1, 2, 0.5}, offset = {1e9, -1e9, 3}, amplitude = -2}
return {a = a, b = b, c = c}

local a, b = ng.perlin{element_size = 4}, ng.simplex{element_size = 3, seed = 9}
local r = (a + b) * 0.5 - a / (b + 2) + (-a) ^ 2
r = r:abs():sqrt():clamp(0.1, 0.9):fit(0, 1, -1, 1, true):invert()
r = ng.min(r, a):max(b) + ng.mix(a, b, ng.x() / 8) + ng.step(a, 0.2) + ng.smoothstep(b, -0.5, 0.5)
r = r + ng.select{a = a, b = b, control = ng.y(), threshold = 4, falloff = 2}
r = r + ng.terrace{source = a, steps = 5, invert = true, sharpness = 64} + ng.terrace{b, points = {-1, 0, 0.5, 1}}
r = r + ng.curve{source = a, points = {{-1, 0}, {0, 0.8}, {1, 1}}} + a:pow(3) + ng.div(1, 0) + ng.neg(b)
return r

local h = ng.fbm{source = ng.value{element_size = 7}, octaves = 3.5}
local c = ng.curl{h, step = 0.01}
local s = ng.normal{source = h, height = 20}
local l = ng.light{source = h, light = {1, 0, 1}}
local sl = ng.slope{source = ng.worley{element_size = 3}, step = 0.5}
return {curl = c, normal = s, light = l, slope = sl}

-- Bench row: the default shading (ng.light) of alligator_height.lua's
-- noise. Against alligator2: the shading's cost.
return ng.light{ng.alligator{element_size = 50}, height = 50}

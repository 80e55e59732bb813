-- Bench row: alligator noise alone, 2D. Against alligator_light.lua.
return ng.alligator{element_size = 50}

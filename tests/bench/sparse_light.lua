-- Bench row: the default shading (ng.light, method auto: the grid in 2D)
-- of sparse_height.lua's noise. Against sparse2: the shading's cost.
return ng.light{ng.sparse{element_size = 50}, height = 50}

-- Bench row: sparse convolution noise alone, 2D. Against sparse_light.lua:
-- what the default shading of a graph without analytic gradients costs.
return ng.sparse{element_size = 50}

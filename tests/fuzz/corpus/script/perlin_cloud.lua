-- Bench row: perlin cloud noise, 6 octaves, each displaced along the gradient
-- of the previous ones; 3D (cloud density volumes). antialias = false so
-- all six octaves are computed at element_size 50, as in the fractal rows.
return ng.perlin_cloud{element_size = 50, octaves = 6, distortion = 0.5, antialias = false}

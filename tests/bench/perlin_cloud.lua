-- Bench row: perlin cloud noise, 6 octaves, each displaced along the gradient
-- of the previous ones; 3D (cloud density volumes).
return ng.perlin_cloud{element_size = 50, octaves = 6, distortion = 0.5}

return ng.perlin_cloud{element_size = 6, octaves = 5, distortion = 0.5, stretch = {1, -2, 1}, droop = {0, 1, 0}}
  + ng.fast_simplex_cloud{element_size = 5, octaves = 2.5} * ng.cloud{type = "simplex", distortion = -100}

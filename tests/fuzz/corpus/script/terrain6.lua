-- Bench row: terrain fractal, 6 octaves of Perlin, lacunarity 2, roughness 0.5.
-- antialias = false: at element_size 50 the sixth octave's features are
-- 1.6 pixels, which the default would skip; the peers compute all six.
return ng.terrain{source = ng.perlin{element_size = 50}, octaves = 6, antialias = false}

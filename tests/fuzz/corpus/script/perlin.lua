-- Bench row: improved Perlin noise, one octave; rendered in 2D and 3D.
-- Also the cheap graph of the 32768x32768 peak-memory render.
return ng.perlin{element_size = 50}

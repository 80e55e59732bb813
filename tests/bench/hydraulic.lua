-- Bench: hydraulic erosion (droplets) of a 6-octave fBm terrain, default
-- knobs (spacing 4: simulation tiles of 128 cells, 512 pixels, 1 droplet
-- per cell, 48 steps each).
local terrain = ng.fbm{source = ng.perlin{element_size = 400, seed = 3}, octaves = 6}
return ng.hydraulic{terrain}:channel(1)

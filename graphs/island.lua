-- island.lua — a terraced island: fBm land shaped by a radial falloff,
-- stepped into rice-field terraces above the beach, sea where the mask
-- says so. Render:
--   noisegraph render graphs/island.lua -o island.png --size 1024
local size  = ng.param("size", 1024, {min = 64, doc = "the image the island is laid out for, pixels"})
local seed  = ng.param("seed", 3, {integer = true})
local steps = ng.param("steps", 7, {min = 1, max = 40, doc = "number of terraces"})

local c = size / 2
-- distance from the centre, 1 at the coast; the coast line wobbles with noise
local radial = ng.distance{center = {c, c, 0}, radius = size * 0.42}
local wobble = ng.fbm{source = ng.simplex{element_size = size / 6, seed = seed}, octaves = 4}
local coast = radial + wobble * 0.25

local land = ng.fbm{source = ng.perlin{element_size = size / 3, seed = seed + 1}, octaves = 5, roughness = 0.45}
  :fit(-0.35, 0.35, 0.3, 1, true)
local falloff = ng.smoothstep(coast, 0.55, 1.0):invert()      -- 1 inland, 0 at sea
local height = land * falloff
local terraced = ng.terrace{source = height, steps = steps, sharpness = 5}

-- sea below the shore threshold, terraced land above, a soft beach between
local sea = ng.fit(coast, 1, 1.6, 0.12, 0.0, true)
return ng.select{a = sea, b = ng.mix(height, terraced, 0.9), control = falloff, threshold = 0.18, falloff = 0.04}

-- terrain_colour.lua — a coloured relief map: a warped fBm height coloured
-- by the terrain ramp (sea, beach, grass, forest, rock, snow) and lit by a
-- hillshade of the same height, the sea shaded flat. Returns RGB. Render:
--   noisegraph render graphs/terrain_colour.lua -o terrain_colour.png --size 1024
local scale  = ng.param("scale", 256, {min = 1, doc = "size of the largest landforms, pixels"})
local seed   = ng.param("seed", 7, {integer = true, doc = "pattern seed"})
local relief = ng.param("relief", 100, {min = 0, doc = "world units of height per unit of value, for the shading"})
local shading = ng.param("shading", "auto", {doc = "ng.light's method: auto (the grid of the pixels' heights in "
  .. "a 2D render) or analytic (the height graph's gradient: this picture's bits before the grid method)"})
local anchor = ng.param("anchor", "render", {doc = "the grid's lattice anchors: render (a lattice point on a pixel "
  .. "is the pixel's height, evaluated once for the colour and the light) or world (this picture's bits before "
  .. "render anchors)"})
local sea    = 0.3 -- where the terrain preset's sea ends

local base = ng.perlin{element_size = scale, seed = seed}
local flow = ng.simplex{element_size = scale * 1.5, seed = seed + 1, output = "vector"}
local shaped = ng.warp{source = base, by = flow, amount = 60}
local height = ng.fbm{source = shaped, octaves = 7, lacunarity = 2.03, roughness = 0.5}:fit(-0.45, 0.45, 0, 1, true)

-- the sea is lit as its flat surface; smax rounds the coast into it
local ground = height:smax(sea, 0.02)
local sun = ng.light{ground, height = relief, light = {-1, -1, 1.2}, method = shading, anchor = anchor}
local shade = sun * 0.7 + 0.3 -- some sky light, so slopes away from the sun keep their colour

return height:ramp("terrain") * shade

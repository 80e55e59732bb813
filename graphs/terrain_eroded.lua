-- terrain_eroded.lua — a mountain range worn by water and gravity, stacked
-- the way a Gaea or World Machine artist stacks erosion nodes:
--   1. the range: ridged mountains rising out of rolling foothills, warped;
--   2. ng.erosion_filter: branching gullies down every slope (per point);
--   3. ng.hydraulic: droplets carve channels and leave sediment fans;
--   4. ng.thermal: loose slopes settle to a talus angle.
-- Every stage stitches: regions, tiles and farm tiles give the same bits.
-- Outputs: colour (RGB, coloured by rock, flow and sediment), height, the
-- masks flow, wear and sediment, in [0, 1], and splat (RGBA layer weights).
-- Render:  noisegraph render graphs/terrain_eroded.lua -o eroded_{name}.png --size 1024
-- Preview: noisegraph preview graphs/terrain_eroded.lua --only height -o view.png --view terrain --size 1024
-- --set erode=0 gives the range before erosion (the same outputs, no wear).
local seed  = ng.param("seed", 3, {integer = true, doc = "pattern seed"})
local scale = ng.param("scale", 640, {min = 64, doc = "size of the largest landforms, world units"})
local erode = ng.param("erode", 1, {integer = true, min = 0, max = 1, doc = "1: eroded; 0: the range before erosion"})
local method = ng.param("method", "auto", {doc = "the erosion filter's slopes: auto (the grid of the heights "
  .. "on the droplets' lattice) or analytic (the range's graph's gradient: these pictures' bits before the grid method)"})

-- 1. the range
local bend = ng.simplex{element_size = scale * 1.5, seed = seed + 1, output = "vector"}
local function warped(n) return ng.warp{source = n, by = bend, amount = scale / 12} end
local peaks = warped(ng.fractal{ng.perlin{element_size = scale, seed = seed}, type = "ridged", octaves = 4,
                                lacunarity = 2.1, roughness = 0.5})
local hills = warped(ng.fbm{ng.perlin{element_size = scale * 2, seed = seed + 2}, octaves = 3})
local mask = hills:fit(-0.35, 0.35, 0, 1, true):bias(0.6)
local range = (hills:fit(-0.6, 0.6, 0.05, 0.35) + peaks:fit(0, 1, 0, 0.65, true) * mask):clamp(0, 1)

local height, flow, wear, sediment
if erode == 0 then
  height, flow, wear, sediment = range, ng.constant{value = 0}, ng.constant{value = 0}, ng.constant{value = 0}
else
  -- 2. gullies, 3. water, 4. gravity
  local gullied = ng.erosion_filter{range, scale = scale / 8, strength = 0.8, octaves = 4, gain = 0.55,
                                    gully_rounding = 0.2, ridge_rounding = 0.05, levels = {0.1, 0.9},
                                    method = method}
  local water = ng.hydraulic{gullied, spacing = 2, droplets = 1, height = 400}
  height = ng.thermal{water:channel(1), talus = 38, iterations = 6, height = 400}
  flow = water:channel(2):fit(0, 40, 0, 1, true):bias(0.3)
  wear = water:channel(3):fit(0, 0.01, 0, 1, true)
  sediment = water:channel(4):fit(0, 0.005, 0, 1, true)
end

-- colour: grass low, rock on steep ground and high, snow on top, dark wet
-- channels where water ran, pale sediment where it settled
local slope = ng.slope{height, height = 400}
local ground = height:ramp{stops = {{0, "#5b6b3a"}, {0.35, "#7a7450"}, {0.6, "#8a8178"}, {0.85, "#d8d8d8"},
                                   {1, "white"}}, interpolation = "smooth"}
local rock = ng.constant{value = 0.42} * ng.vector{x = 1, y = 0.95, z = 0.9}
local coloured = ng.mix(ground, rock, slope:fit(0.3, 0.8, 0, 1, true))
coloured = ng.mix(coloured, ng.vector{x = 0.86, y = 0.78, z = 0.6}, sediment * 0.8)
coloured = ng.mix(coloured, ng.vector{x = 0.22, y = 0.26, z = 0.25}, flow * 0.6)
local lit = ng.light{height, height = 400} * 0.75 + 0.25
-- splat: the layers a game engine paints with: grass (the base), rock,
-- sediment, snow, as RGBA weights summing to 1
local splat = ng.splat{g = slope:fit(0.3, 0.8, 0, 1, true), b = sediment, a = height:smoothstep(0.8, 0.9)}
return {colour = coloured * lit, height = height, flow = flow, wear = wear, sediment = sediment, splat = splat}

-- terrain_eroded.lua — a mountain range worn by water and gravity, stacked
-- the way a Gaea or World Machine artist stacks erosion nodes:
--   1. the range: a network of main ridgelines (the zero lines of a warped
--      noise, rounded) rising out of rolling foothills, with low basins
--      levelled into sediment-filled floors;
--   2. ng.stream_power: the range's drainage, whole: basins filled so
--      water crosses them, rivers routed from the crests to the edge of a
--      simulation tile 2048 world units wide, trunk valleys cut as deep as
--      the area they drain (the stream-power law);
--   3. ng.erosion_filter: valleys down every flank, widest first, each
--      octave branching down the walls of the one before (dendritic), into
--      the trunk valleys, which it follows as it follows any slope;
--   4. ng.hydraulic: droplets cut the channels, grow them downhill and
--      drop sediment where the slope eases: fans and valley floors;
--   5. ng.thermal: loose slopes settle to a talus angle.
-- Every stage stitches: regions, tiles and farm tiles give the same bits.
-- Outputs: colour (RGB, coloured by rock, rivers, flow and sediment),
-- height, the masks flow (droplets' water and the rivers), wear and
-- sediment, in [0, 1], and splat (RGBA layer weights).
-- Render:  noisegraph render graphs/terrain_eroded.lua -o eroded_{name}.png --size 1024
-- Preview: noisegraph preview graphs/terrain_eroded.lua --only height -o view.png --view terrain --size 1024 --height-scale 400
-- --set erode=0 gives the range before erosion (the same outputs, no wear).
local seed  = ng.param("seed", 3, {integer = true, min = 0, max = 1000000, doc = "pattern seed"})
local scale = ng.param("scale", 640, {min = 64, doc = "size of the largest landforms, world units"})
local erode = ng.param("erode", 1, {integer = true, min = 0, max = 1, doc = "1: eroded; 0: the range before erosion"})
local method = ng.param("method", "auto", {doc = "the erosion filter's slopes: auto (the grid of the heights "
  .. "on the pixels' lattice) or analytic (the range's graph's gradient at each point)"})

-- 1. the range
local bend = ng.simplex{element_size = scale * 1.5, seed = seed + 1, output = "vector"}
local wobble = ng.simplex{element_size = scale * 0.4, seed = seed + 4, output = "vector"}
local function warped(n)
  return ng.warp{source = ng.warp{source = n, by = wobble, amount = scale / 40}, by = bend, amount = scale / 6}
end
-- Ridgelines along the zero lines of a smooth noise, as ridged noise puts
-- them, but rounded (1 - sqrt(n^2 + r^2), not 1 - |n|): a knife-edge crest
-- turns the slope's direction round in one pixel, and the erosion filter
-- would cut a trench along it. The filter's own ridges are the sharp ones.
local round = 0.18
local n = warped(ng.fbm{ng.perlin{element_size = scale * 0.8, seed = seed}, octaves = 2, roughness = 0.4})
local crest = (1 - (n * n + round * round):sqrt()):fit(0.4, 1 - round, 0, 1, true)
-- peaks and saddles along the crests, so a ridgeline is a chain of summits
local summits = ng.perlin{element_size = scale / 4, seed = seed + 5}:fit(-0.7, 0.7, 0.7, 1)
local hills = warped(ng.fbm{ng.perlin{element_size = scale * 2, seed = seed + 2}, octaves = 3})
local massif = hills:fit(-0.5, 0.2, 0.35, 1, true)
-- concave flanks (pow): steep under the crests, easing into the valleys
local range = hills:fit(-0.6, 0.6, 0.3, 0.42) + crest:pow(2) * summits * massif * 0.56
-- the low basins levelled, as sediment fills them, into gently rolling floors
local floor = hills:fit(-0.6, 0.6, 0.33, 0.38)
range = range:smax(floor, 0.06)
-- valley floors: the bottom of every valley filled up to a little below
-- the mean of its surroundings, a smooth surface that falls as the valley
-- does: wide floors of sediment that the filter leaves flat and the
-- droplets spread fans onto
range = range:smax(ng.blur{range, radius = scale / 8} - 0.02, 0.05):clamp(0, 1)

local height, flow, wear, sediment, river, floors
if erode == 0 then
  height, flow, wear, sediment = range, ng.constant{value = 0}, ng.constant{value = 0}, ng.constant{value = 0}
  river, floors = ng.constant{value = 0}, ng.constant{value = 0}
else
  -- 2. rivers. Cells of 16 world units, tiles of 128 cells (2048 world
  -- units, three landforms across; every point blends two tiles per axis):
  -- the trunk valleys are a few cells wide, the filter and the droplets
  -- carve everything finer, and a tile costs a quarter of one of 256 cells
  -- of 8. The ground is held toward the range (uplift) so the rivers
  -- settle into graded valleys rather than wear the range flat; basins
  -- are not filled (fill 0): water crosses them, their floors stay as the
  -- range made them. The change is added to the range itself (minus wear,
  -- plus deposit), not sampled from the coarse lattice, so the range keeps
  -- its detail.
  local rivers = ng.stream_power{range, spacing = 16, tile = 128, iterations = 24, strength = 0.004,
                                 area_exponent = 0.8, uplift = 0.1, fill = 0, height = 400}
  range = range - rivers:channel(3) + rivers:channel(4)
  -- the trunk rivers: the cells draining the most (a few hundred cells
  -- of 16^2 and more, of 128^2 a tile), where they cut (crossing a
  -- basin they run on its filled surface, above the ground)
  river = rivers:channel(2):smoothstep(0.45, 0.6) * rivers:channel(3):smoothstep(0.004, 0.02)
  -- the valley floors the rivers run in: where a few dozen cells drain
  floors = rivers:channel(2):smoothstep(0.3, 0.45)
  -- 3. valleys, 4. water, 5. gravity. The widest valleys are a quarter of
  -- the landforms apart; six octaves branch them down to gullies of a few
  -- pixels, each octave's walls steeper (gain) than in the filter's default
  -- so the fine gullies still show; the droplets deepen them downhill.
  local valleys = ng.erosion_filter{range, scale = scale / 4, strength = 1, octaves = 6, gain = 0.65,
                                    gully_rounding = 0.2, ridge_rounding = 0.05, levels = {0.34, 0.95},
                                    method = method}
  local water = ng.hydraulic{valleys, spacing = 2, droplets = 1, height = 400}
  height = ng.thermal{water:channel(1), talus = 38, iterations = 6, height = 400}
  -- the masks spread over [0, 1]: water that passed (about the cells
  -- upstream), height worn away and height laid down, in source units
  flow = water:channel(2):fit(0, 150, 0, 1, true):bias(0.65):max(river)
  wear = water:channel(3):fit(0, 0.06, 0, 1, true)
  sediment = water:channel(4):fit(0, 0.06, 0, 1, true):bias(0.65)
end

-- colour, as a satellite sees a range: meadow and scrub low, bare rock on
-- steep ground and high, snow on the high ground where it can lie (not on
-- cliffs), pale gravel where the droplets dropped their sediment (fans,
-- valley floors), dark wet channels where their water ran
local slope = ng.slope{height, height = 400}
local steep = slope:smoothstep(0.4, 0.7) -- bare rock from about 36 degrees, all rock past 63
local ground = height:ramp{stops = {{0.3, "#7d8050"}, {0.42, "#5f6b3b"}, {0.55, "#6b6a48"}, {0.68, "#85796a"},
                                   {0.85, "#948d86"}}, interpolation = "smooth"}
local coloured = ng.mix(ground, ng.vector{x = 0.40, y = 0.37, z = 0.34}, steep)
local gentle = 1 - slope:smoothstep(0.2, 0.45) -- where sediment stays: gone from 18 to 40 degrees
coloured = ng.mix(coloured, ng.vector{x = 0.80, y = 0.74, z = 0.62}, sediment:smoothstep(0.4, 1) * gentle * 0.8)
coloured = ng.mix(coloured, ng.vector{x = 0.18, y = 0.21, z = 0.19}, flow:smoothstep(0.6, 1) * 0.6)
-- the rivers' floors: alluvium along the trunk valleys, water in their
-- channels where the ground is gentle
coloured = ng.mix(coloured, ng.vector{x = 0.50, y = 0.52, z = 0.36}, floors * gentle * 0.45)
coloured = ng.mix(coloured, ng.vector{x = 0.55, y = 0.55, z = 0.40}, river * gentle * 0.5)
coloured = ng.mix(coloured, ng.vector{x = 0.18, y = 0.25, z = 0.27}, river:smoothstep(0.8, 1) * gentle * 0.6)
local snow = height:smoothstep(0.76, 0.86) * (1 - slope:smoothstep(0.45, 0.75))
coloured = ng.mix(coloured, ng.vector{x = 0.95, y = 0.96, z = 0.98}, snow)
local lit = ng.light{height, height = 400} * 0.55 + 0.45
-- splat: the layers a game engine paints with: grass (the base), rock,
-- sediment, snow, as RGBA weights summing to 1
local splat = ng.splat{g = steep, b = sediment * (1 - steep), a = snow}
return {colour = coloured * lit, height = height, flow = flow, wear = wear, sediment = sediment, splat = splat}

-- cloud_volume.lua — a field of cumulus clouds as a 3D density, built the
-- way real-time cloud renderers build theirs: a billowy base shape, cut to
-- the sky coverage asked for, shaped by height into flat-bottomed cumulus
-- towers, then eroded at the edges by a finer Worley detail. z is up.
--   noisegraph render graphs/cloud_volume.lua -o cloud.vdb --size 256x256x64 --voxel-size 4
--   noisegraph preview graphs/cloud_volume.lua -o cloud.png --volume 256x256x64 --voxel-size 4
local cover = ng.param("cover", 0.6, {min = 0, max = 1, doc = "fraction of the sky that is cloud"})
local base = ng.param("base", 24, {doc = "height of the cloud base, world units"})
local height = ng.param("height", 230, {min = 1, doc = "thickness of the cloud layer, world units"})
local erosion = ng.param("erosion", 0.3, {min = 0, max = 1, doc = "how much the detail noise eats the edges"})
local seed = ng.param("seed", 3, {integer = true})

-- large billowy shapes, squashed in z so towers are wider than tall
local shape = ng.perlin_cloud{element_size = 220, element_scale = {1, 1, 0.6}, seed = seed, octaves = 5,
                              distortion = -0.25, worley = 0.25, worley_size = 0.35}
local cloud = ng.coverage{shape, coverage = cover, softness = 0.3}
              * ng.height_profile{bottom = base, top = base + height, shape = "cumulus"}
local detail = ng.fbm{source = ng.worley{element_size = 28, seed = seed + 1, range = "unit"}, octaves = 3}
return ng.erode{cloud, detail, amount = erosion} * 2.5

-- gallery.lua — every noise basis side by side, a contact sheet of 4 x 3
-- cells, each remapped to [0, 1] with range = "unit". Render:
--   noisegraph render graphs/gallery.lua -o gallery.png --size 1024x768
-- Row 1: value, perlin, fast, simplex
-- Row 2: flow, white, worley f1, worley f2-f1
-- Row 3: worley cell (manhattan), sparse, alligator, perlin fBm
local cell = ng.param("cell", 256, {min = 16, doc = "edge of one cell of the sheet, pixels"})
local size = cell / 5

local function n(t, extra)
  local o = {type = t, element_size = size, seed = 5, range = "unit"}
  for k, v in pairs(extra or {}) do o[k] = v end
  return ng.noise(o)
end

local cells = {
  n("value"), n("perlin"), n("fast"), n("simplex"),
  n("flow", {flow = 0.3}), n("white"), n("worley"), n("worley", {feature = "f2-f1"}),
  n("worley", {feature = "cell", metric = "manhattan"}), n("sparse"), n("alligator"),
  ng.fbm{n("perlin"), octaves = 5},
}

return require("lib.sheet")(cells, 4, 3, cell)

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

-- pick cells[col + 4 * row + 1] by hard-edged selects on the coordinates
local col, row = ng.x() / cell, ng.y() / cell
local function pick_row(r)
  local out = cells[4 * r + 1]
  for c = 1, 3 do out = ng.select{a = out, b = cells[4 * r + c + 1], control = col, threshold = c} end
  return out
end
local sheet = pick_row(0)
for r = 1, 2 do sheet = ng.select{a = sheet, b = pick_row(r), control = row, threshold = r} end

return sheet

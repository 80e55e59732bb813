-- terrain_types.lua — the fractal types side by side over the same perlin
-- source, lit from the top left so their shapes read as relief:
--   standard (fBm) | terrain | hybrid
--   ridged         | billow  | ridged, shaded slope mask
-- Render: noisegraph render graphs/terrain_types.lua -o types.png --size 1536x1024
local cell = ng.param("cell", 512, {min = 16, doc = "edge of one panel, pixels"})
local seed = ng.param("seed", 21, {integer = true})
local shading = ng.param("shading", "auto", {doc = "ng.light's and ng.slope's method: auto (the grid of the "
  .. "pixels' heights in a 2D render) or analytic (the graph's gradient: this sheet's bits before the grid method)"})
local anchor = ng.param("anchor", "render", {doc = "the grid's lattice anchors: render (a lattice point on a pixel "
  .. "is the pixel's height, evaluated once for both) or world (this sheet's bits before render anchors)"})

local src = ng.simplex{element_size = cell / 2, seed = seed}
local function f(t) return ng.fractal{src, type = t, octaves = 8, lacunarity = 2.1, roughness = 0.5} end

local std, ter, hyb, rid, bil = f("standard"), f("terrain"), f("hybrid"), f("ridged"), f("billow")
local function shade(h) return ng.light{h, height = cell * 0.05, method = shading, anchor = anchor} * 0.35 + h:fit(-0.7, 0.7, 0, 0.65, true) end
local panels = {
  shade(std), shade(ter), shade(hyb),
  shade(rid * 2 - 1), shade(bil), ng.slope{rid, height = cell * 0.05, method = shading, anchor = anchor},
}

return require("lib.sheet")(panels, 3, 2, cell)

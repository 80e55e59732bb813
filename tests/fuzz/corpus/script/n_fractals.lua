local src = ng.perlin{element_size = 8}
local t = {}
for _, k in ipairs{"standard", "terrain", "hybrid", "ridged", "billow"} do
  t[k] = ng.fractal{source = src, type = k, octaves = 4.3, lacunarity = 2.7, roughness = 0.6, antialias = false}
end
t.fbm = ng.fbm{src, octaves = 0}
t.nested = ng.ridged{source = ng.billow{source = src, octaves = 3}, octaves = 3}
return t

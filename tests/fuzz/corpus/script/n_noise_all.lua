local out = ng.constant(0)
for i, t in ipairs{"value", "perlin", "fast", "simplex", "flow", "white", "worley", "sparse", "alligator"} do
  out = out + ng.noise{type = t, element_size = 3 + i, seed = i, range = i % 2 == 0 and "unit" or "signed"}
end
return out

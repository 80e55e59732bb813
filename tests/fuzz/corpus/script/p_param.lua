local a = ng.param("amount", 3, {min = 0, max = 10, doc = "how much"})
local s = ng.param("label", "x")
local b = ng.param("flag", true)
local again = ng.param("amount", 4)
return ng.perlin{element_size = a + again, seed = #s + (b and 1 or 0)}

return {["a.b"] = ng.perlin{}, c_d = ng.simplex{}, ["e-f"] = ng.value{}}

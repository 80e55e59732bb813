return {[1] = ng.perlin{}, ["../x"] = ng.x()}

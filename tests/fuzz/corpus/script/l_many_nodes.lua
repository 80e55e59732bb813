local n = ng.perlin{}
for i = 1, 5000 do n = ng.add(n, ng.constant(i)) end
return n

local n = ng.constant(0)
for i = 1, 2000 do n = n + i end
while true do end

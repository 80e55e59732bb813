local co = coroutine.create(function(a)
  local n = ng.perlin{element_size = a}
  local b = coroutine.yield(n)
  error(b)
end)
local ok, n = coroutine.resume(co, 5)
local ok2, e = coroutine.resume(co, "x")
local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(ng.constant(i)) end end)
local s = gen() + gen() + gen()
local dead = coroutine.create(function() ng.perlin{element_size = coroutine.yield()} end)
coroutine.resume(dead)
coroutine.close(dead)
return n + s

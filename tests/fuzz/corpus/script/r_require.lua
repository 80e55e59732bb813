local m = require "mod"
local m2 = require("mod")
assert(m == m2)
local ok, err = pcall(require, "../etc/passwd")
local ok2 = pcall(require, "missing.module")
return m.bump(m.base, 0.5)

-- The `particlefx` namespace (docs/particles.md): playing and stopping particle effect
-- components. Arguments are checked here, naming the function; Rust does the work.
local S = ...
local F, ctx = S.F, S.ctx
local fail, argerr = S.fail, S.argerr
local PARTICLEFX = S.K.COMPONENT_PARTICLEFX

local function check(rc) if rc ~= 0 then S.fail_last() end end

local particlefx = {}

-- (url) → slot and component hash; a game object's URL (no component) stands for every
-- particle effect of it, as in Defold, where play and stop are messages to the URL.
local function effect_of(fname, url)
  local r = S.caller("particlefx")
  if url == nil then argerr(fname, 1, "string, hash or msg.url", url) end
  local u = S.url_t(S.to_url(url, fname, 1, r))
  if u.f ~= 0 then
    local slot = S.component_of(fname, url, r, PARTICLEFX)
    return slot, u.f
  end
  local slot = u.s == r.url.s and F.find(ctx, u.s, u.p) or S.NONE
  if slot == S.NONE then
    fail(string.format("%s: the game object '%s' could not be found", fname, S.url_text(u)))
  end
  return slot, 0
end

-- Defold calls `emitter_state_function(self, id, emitter, state)` as emitters change state;
-- Sinew does not yet, and says so rather than never calling it.
function particlefx.play(url, emitter_state_function)
  local slot, comp = effect_of("particlefx.play", url)
  if emitter_state_function ~= nil then
    if type(emitter_state_function) ~= "function" then argerr("particlefx.play", 2, "function", emitter_state_function) end
    fail("particlefx.play: emitter_state_function is not supported by Sinew yet")
  end
  check(F.particlefx_play(ctx, slot, comp))
end

function particlefx.stop(url, options)
  local slot, comp = effect_of("particlefx.stop", url)
  local clear = false
  if options ~= nil then
    if type(options) ~= "table" then argerr("particlefx.stop", 2, "table", options) end
    clear = options.clear
    if clear ~= nil and type(clear) ~= "boolean" then
      fail(string.format("particlefx.stop: clear must be a boolean (got %s)", S.type_name(clear)))
    end
  end
  check(F.particlefx_stop(ctx, slot, comp, clear and 1 or 0))
end

return S.unsupported_rest("particlefx", particlefx)

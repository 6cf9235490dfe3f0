-- The `collectionproxy` namespace: Defold's functions for proxies whose collection LiveUpdate
-- leaves out of the bundle. Sinew loads every collection from the project (or the bundle,
-- which holds them all), so a proxy never misses a resource; games ask before they load
-- (`if next(collectionproxy.missing_resources(url)) then download ... end`).
local S = ...
local PROXY = S.K.COMPONENT_COLLECTION_PROXY

local collectionproxy = {}

function collectionproxy.missing_resources(url)
  local r = S.caller("collectionproxy")
  S.component_of("collectionproxy.missing_resources", url, r, PROXY)
  return {}
end

return S.unsupported_rest("collectionproxy", collectionproxy)

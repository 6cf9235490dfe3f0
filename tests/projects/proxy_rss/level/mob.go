{ "components": [ { "id": "script", "type": "script", "script": "/level/mob.script" } ] }

{ "components": [ { "id": "script", "type": "script", "script": "/main/mob.script" } ] }

{ "components": [ { "id": "script", "type": "script", "script": "/main/mover.script" } ] }

{ "components": [ { "id": "script", "type": "script", "script": "/main/worker.script" } ] }

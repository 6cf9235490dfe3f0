{ "components": [ { "id": "model", "type": "model", "model": "/main/walker.model" } ] }

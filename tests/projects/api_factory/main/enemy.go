{ "components": [ { "id": "script", "type": "script", "script": "/main/enemy.script", "properties": { "label": "from_go" } } ] }

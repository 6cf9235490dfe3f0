{ "components": [ { "id": "script", "type": "script", "script": "/main/coin.script" } ] }

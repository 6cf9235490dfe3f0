{ "components": [ { "id": "label", "type": "label", "text": "spawned", "pivot": "PIVOT_S" } ] }

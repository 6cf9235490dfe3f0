{ "components": [ { "id": "label", "type": "label", "text": "thing" } ] }

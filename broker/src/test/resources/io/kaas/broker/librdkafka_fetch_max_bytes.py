"""librdkafka consumer with a small fetch.max.bytes: reads every record of a topic, prints JSON.

usage: librdkafka_fetch_max_bytes.py BOOTSTRAP TOPIC EXPECTED FETCH_MAX_BYTES
Prints {"keys": [...], "errors": [...]}; exits 1 when not every record arrived within 60 s.
"""
import json
import sys
import time

from confluent_kafka import Consumer

bootstrap, topic, expected, fetch_max = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
errors = []
c = Consumer({
    "bootstrap.servers": bootstrap,
    "group.id": "rdk-fetch-max-bytes",
    "auto.offset.reset": "earliest",
    "enable.auto.commit": False,
    "fetch.max.bytes": fetch_max,
    "receive.message.max.bytes": fetch_max + 512,
    "error_cb": lambda e: errors.append(str(e)),
})
c.subscribe([topic])
keys = []
deadline = time.time() + 60
while len(keys) < expected and time.time() < deadline:
    m = c.poll(0.5)
    if m is None:
        continue
    if m.error():
        errors.append(str(m.error()))
        continue
    keys.append(m.key().decode())
c.close()
print(json.dumps({"keys": keys, "errors": errors}))
sys.exit(0 if len(keys) >= expected else 1)

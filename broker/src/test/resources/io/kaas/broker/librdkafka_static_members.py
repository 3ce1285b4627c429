"""Two static librdkafka consumers (KIP-345); each in turn closes (no LeaveGroup) and a new instance with
the same group.instance.id rejoins within the session timeout.

usage: librdkafka_static_members.py BOOTSTRAP TOPIC GROUP
Prints JSON: for each round, which instance restarted, its partitions before and after, and the other
instance's revocation count and partitions before and after. Exits 1 on a timeout.
"""
import json
import sys
import time

from confluent_kafka import Consumer

bootstrap, topic, group = sys.argv[1], sys.argv[2], sys.argv[3]


class Member:
    def __init__(self, instance):
        self.instance = instance
        self.assigned = []
        self.revocations = 0
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "group.instance.id": instance,
            "session.timeout.ms": 30000,
            "heartbeat.interval.ms": 500,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        })
        self.consumer.subscribe([topic], on_assign=self.on_assign, on_revoke=self.on_revoke)

    def on_assign(self, consumer, partitions):
        self.assigned = sorted(p.partition for p in partitions)

    def on_revoke(self, consumer, partitions):
        if partitions:
            self.revocations += 1
        self.assigned = []

    def poll(self):
        self.consumer.poll(0.1)


def until(members, condition, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        for m in members:
            m.poll()
        if condition():
            return
    print(json.dumps({"timeout": [(m.instance, m.assigned, m.revocations) for m in members]}))
    sys.exit(1)


a = Member("rdk-a")
until([a], lambda: len(a.assigned) == 4)
b = Member("rdk-b")
until([a, b], lambda: len(a.assigned) + len(b.assigned) == 4 and a.assigned and b.assigned)
# Settle: both keep heartbeating a while in the stable group.
settle = time.time() + 3
until([a, b], lambda: time.time() > settle)
rounds = []
for restarting, other in (("a", "b"), ("b", "a")):
    members = {"a": a, "b": b}
    leaving, staying = members[restarting], members[other]
    before, other_before, other_revocations = leaving.assigned, list(staying.assigned), staying.revocations
    leaving.consumer.close()
    rejoined = Member(leaving.instance)
    until([staying, rejoined], lambda: rejoined.assigned == before)
    settle = time.time() + 3
    until([staying, rejoined], lambda: time.time() > settle)
    rounds.append({
        "restarted": leaving.instance,
        "before": before,
        "after": rejoined.assigned,
        "other_revocations": staying.revocations - other_revocations,
        "other_before": other_before,
        "other_after": staying.assigned,
    })
    members[restarting] = rejoined
    a, b = members["a"], members["b"]
a.consumer.close()
b.consumer.close()
print(json.dumps({"rounds": rounds}))

"""librdkafka transactions against a broker, through Debian's python3-confluent-kafka.

Usage: librdkafka_transactions.py BOOTSTRAP TOPIC PARTITIONS
Runs three transactions over every partition of TOPIC (commit, abort, commit), then reads the topic back
read_committed and read_uncommitted until the end of every partition, and prints one JSON object:
{"committed": [...values read_committed...], "uncommitted": [...], "sent_committed": [...], "sent_all": [...]}.
Any error raises (non-zero exit, the traceback on stderr).
"""
import json
import sys

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

bootstrap, topic, partitions = sys.argv[1], sys.argv[2], int(sys.argv[3])

producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": "rdkafka-txn", "acks": "all",
                     "transaction.timeout.ms": 60000, "linger.ms": 5})
errors = []


def delivered(err, msg):
    if err is not None:
        errors.append(str(err))


sent_committed, sent_all = [], []
producer.init_transactions(30)
for outcome in ("commit1", "abort", "commit2"):
    producer.begin_transaction()
    for i in range(3 * partitions):
        value = "%s-%d" % (outcome, i)
        producer.produce(topic, value=value.encode(), partition=i % partitions, on_delivery=delivered)
        sent_all.append(value)
    if outcome == "abort":
        producer.flush(30)
        producer.abort_transaction(30)
    else:
        producer.commit_transaction(30)
        sent_committed.extend(sent_all[-3 * partitions:])
if errors:
    raise KafkaException("delivery failed: %s" % errors)


def read(isolation):
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "rdkafka-txn-" + isolation,
                         "isolation.level": isolation, "enable.partition.eof": True,
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    values, at_end = [], set()
    while len(at_end) < partitions:
        msg = consumer.poll(10)
        if msg is None:
            raise KafkaException("no message nor end of partition within 10 s (%s)" % isolation)
        if msg.error():
            if msg.error().code() == msg.error()._PARTITION_EOF:
                at_end.add(msg.partition())
                continue
            raise KafkaException(msg.error())
        values.append(msg.value().decode())
    consumer.close()
    return values


print(json.dumps({"committed": read("read_committed"), "uncommitted": read("read_uncommitted"),
                  "sent_committed": sent_committed, "sent_all": sent_all}))

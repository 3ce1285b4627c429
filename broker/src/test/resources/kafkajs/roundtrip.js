// Produces COUNT records (key, value, a header) to TOPIC with KafkaJS, acks=all and the given codec,
// reads them back from the beginning, and prints "produced N consumed M" on success.
// Usage: node roundtrip.js BOOTSTRAP TOPIC COUNT none|gzip
const { Kafka, CompressionTypes, logLevel } = require('kafkajs');

const [bootstrap, topic, countArg, codec] = process.argv.slice(2);
const count = Number(countArg);
const kafka = new Kafka({ clientId: 'kaas-test-kafkajs', brokers: [bootstrap], logLevel: logLevel.WARN });
const compression = codec === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None;

async function main() {
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  const messages = [];
  for (let i = 0; i < count; i++) {
    messages.push({ key: `k${i}`, value: `kafkajs-${codec}-${i}`, headers: { n: `${i}` } });
  }
  // Several batches: one send per ten records.
  for (let i = 0; i < messages.length; i += 10) {
    await producer.send({ topic, acks: -1, compression, messages: messages.slice(i, i + 10) });
  }
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: `kafkajs-${topic}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let consumed = 0;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`consumed ${consumed} of ${count} in 60 s`)), 60000);
    consumer.run({
      eachMessage: async ({ message }) => {
        consumed++;
        if (consumed >= count) {
          clearTimeout(timer);
          resolve();
        }
      },
    }).catch(reject);
  });
  await consumer.disconnect();
  console.log(`produced ${count} consumed ${consumed}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

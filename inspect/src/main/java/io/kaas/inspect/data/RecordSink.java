package io.kaas.inspect.data;

import java.io.IOException;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/** Where {@link RecordReader} hands each record it reads, in offset order, with the batch that holds it. */
@FunctionalInterface
public interface RecordSink {
    void accept(PartitionDir partition, RecordBatch batch, Record record) throws IOException;
}

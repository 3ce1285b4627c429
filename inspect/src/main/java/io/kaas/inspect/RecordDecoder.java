package io.kaas.inspect;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;

/**
 * Decodes the records of one batch with kafka-clients' own record classes (compressed batches
 * included), so the inspector reads records exactly as a consumer would. Only the inspector decodes
 * records; the broker never does.
 */
public final class RecordDecoder {
    private final boolean printData;
    private final boolean hex;

    public RecordDecoder(boolean printData, boolean hex) {
        this.printData = printData;
        this.hex = hex;
    }

    /** Emits one {@link RecordLine} per record of the batch whose full bytes are {@code batch}. */
    public void decode(Path file, ByteBuffer batch, Consumer<RecordLine> sink) {
        MemoryRecords records = MemoryRecords.readableRecords(batch.duplicate());
        for (MutableRecordBatch b : records.batches()) {
            String tsType = b.timestampType().toString();
            for (Record r : b) {
                sink.accept(line(file, b, tsType, r));
            }
        }
    }

    private RecordLine line(Path file, MutableRecordBatch b, String tsType, Record r) {
        List<String> headerKeys = new ArrayList<>();
        for (Header h : r.headers()) {
            headerKeys.add(h.key());
        }
        String control = null;
        int coordinatorEpoch = -1;
        if (b.isControlBatch()) {
            ControlRecordType type = ControlRecordType.parse(r.key());
            if (type == ControlRecordType.COMMIT || type == ControlRecordType.ABORT) {
                EndTransactionMarker marker = EndTransactionMarker.deserialize(r);
                control = marker.controlType().name();
                coordinatorEpoch = marker.coordinatorEpoch();
            } else {
                control = type.name();
            }
        }
        boolean data = printData && !b.isControlBatch();
        return new RecordLine(
                file,
                r.offset(),
                tsType,
                r.timestamp(),
                r.keySize(),
                r.valueSize(),
                r.sequence(),
                headerKeys,
                control,
                coordinatorEpoch,
                data && r.hasKey() ? render(r.key()) : null,
                data && r.hasValue() ? render(r.value()) : null);
    }

    private String render(ByteBuffer bytes) {
        byte[] a = new byte[bytes.remaining()];
        bytes.duplicate().get(a);
        return hex ? HexFormat.of().formatHex(a) : new String(a, StandardCharsets.UTF_8);
    }
}

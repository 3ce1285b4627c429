package io.kaas.storage.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The streaming fast path gives what StateJson's databind mapper gives, or leaves the file to it: for every
 * document below, a value it returns equals databind's, and where databind fails it returns nothing (so
 * StateJson reports databind's own error).
 */
class PlainRecordReaderTest {
    private static byte[] utf8(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                // answered: exact types, unknown keys skipped, absent boxes and lists null
                "Manifest | {\"epoch\":5,\"highWatermark\":1000,\"logStartOffset\":0} | plain",
                "Manifest | {\"logStartOffset\":3,\"epoch\":2,\"highWatermark\":9,\"newer\":{\"a\":[1,{}]}} | plain",
                "RecoveryCheckpoint | {\"segmentBase\":0,\"bytePos\":4096,\"highWatermark\":12} | plain",
                "LogStart | {\"version\":1,\"logStartOffset\":7,\"highWatermark\":9} | plain",
                "LeaderEpochCheckpoint | {\"version\":1,\"epochs\":[{\"epoch\":1,\"startOffset\":0},{\"epoch\":3,\"startOffset\":40}]} | plain",
                "LeaderEpochCheckpoint | {\"version\":1} | plain",
                "ProducerStateSnapshot | {\"version\":1,\"entries\":[{\"producer_id\":4000,\"epoch\":0,\"recent\":[{\"first_seq\":0,\"last_seq\":4,\"base_offset\":10}]}]} | plain",
                "ProducerStateSnapshot | {\"version\":1,\"entries\":[{\"producer_id\":1,\"epoch\":2,\"recent\":[],\"coordinator_epoch\":7}]} | plain",
                "TxnIndexSnapshot | {\"version\":1,\"open\":[{\"producer_id\":1,\"first_offset\":5}],\"aborted\":[{\"producer_id\":2,\"first_offset\":0,\"last_offset\":3}]} | plain",
                "TopicConfig | {\"retentionMs\":60000,\"cleanupPolicy\":\"compact\",\"otherConfigs\":{\"b\":\"2\",\"a\":\"1\"}} | plain",
                "TopicConfig | {\"cleanupPolicy\":null,\"flushMessages\":1} | plain",
                "TopicConfig | {} | plain",
                "CleanerSwapIntent | {\"version\":1,\"segment\":\"s\",\"replaced\":[\"a\",\"b\"]} | plain",
                "Manifest | {\"epoch\":1,\"highWatermark\":2,\"logStartOffset\":3} trailing | plain",
                // left to databind: coercions, nulls and absences of primitives, wrong shapes, duplicates
                "Manifest | {\"epoch\":\"5\",\"highWatermark\":1000,\"logStartOffset\":0} | databind",
                "Manifest | {\"epoch\":5.0,\"highWatermark\":1000,\"logStartOffset\":0} | databind",
                "Manifest | {\"epoch\":null,\"highWatermark\":1000,\"logStartOffset\":0} | databind",
                "Manifest | {\"highWatermark\":1000,\"logStartOffset\":0} | databind",
                "Manifest | {\"epoch\":1,\"epoch\":2,\"highWatermark\":1000,\"logStartOffset\":0} | databind",
                "Manifest | {\"epoch\":2147483648,\"highWatermark\":1000,\"logStartOffset\":0} | databind",
                "Manifest | {\"epoch\":1,\"highWatermark\":99999999999999999999,\"logStartOffset\":0} | databind",
                "Manifest | [1,2,3] | databind",
                "Manifest | null | databind",
                "Manifest | '' | databind",
                "Manifest | {\"epoch\":1,\"highWatermark\" | databind",
                "Manifest | {\"epoch\":1,\"highWatermark\":2,\"logStartOffset\":3 | databind",
                "ProducerStateSnapshot | {\"version\":1,\"entries\":[{\"producer_id\":1,\"epoch\":40000,\"recent\":[]}]} | databind",
                "ProducerStateSnapshot | {\"version\":1} | databind",
                "ProducerStateSnapshot | {\"version\":1,\"entries\":[null]} | databind",
                "ProducerStateSnapshot | {\"version\":1,\"entries\":{}} | databind",
                "TopicConfig | {\"otherConfigs\":{\"a\":1}} | databind",
                "TopicConfig | {\"cleanupPolicy\":7} | databind",
                "TopicConfig | {\"retentionMs\":true} | databind",
                "TopicIdentity | {\"topicId\":\"6ba7b810-9dad-11d1-80b4-00c04fd430c8\"} | plain",
                "TopicIdentity | {\"topicId\":\"6BA7B810-9DAD-11D1-80B4-00C04FD430C8\"} | plain",
                "TopicIdentity | {\"topicId\":null} | plain",
                "TopicIdentity | {\"topicId\":\"1-2-3-4-5\"} | databind",
                "TopicIdentity | {\"topicId\":\"6ba7b810x9dad-11d1-80b4-00c04fd430c8\"} | databind",
                "TopicIdentity | {\"topicId\":\"a7uwEJ2tEdGAtADAT9QwyA==\"} | databind",
            })
    void answersExactlyAsDatabindOrLeavesItToDatabind(String simpleName, String json, String who) throws Exception {
        Class<?> type = Class.forName("io.kaas.storage.format." + simpleName);
        byte[] bytes = utf8(json);
        Optional<?> plain = PlainRecordReader.read(bytes, type);
        assertThat(plain.isPresent()).as("answered by the fast path").isEqualTo(who.equals("plain"));
        Object databind;
        try {
            databind = StateJson.mapper().readValue(bytes, type);
        } catch (IOException | RuntimeException e) {
            assertThat(plain).as("databind fails: %s", e.getMessage()).isEmpty();
            assertThatThrownBy(() -> StateJson.fromBytes(bytes, type))
                    .isInstanceOf(e.getClass())
                    .hasMessage(e.getMessage());
            return;
        }
        plain.ifPresent(value -> assertThat(value).isEqualTo(databind));
        assertThat((Object) StateJson.fromBytes(bytes, type)).isEqualTo(databind);
    }
}

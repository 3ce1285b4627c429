package io.kaas.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.GroupOffsetsFile;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Assume;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;

/**
 * A group's offsets file name and back ({@link GroupOffsetsFile#groupOf}): a slot's takeover reads only the files its
 * names say are that slot's, so every name the store writes must give its group back, and no other name may pass
 * for one.
 */
class OffsetStoreFileNameProperties {
    @Property(tries = 2000)
    void everyFileNameGivesItsGroupBack(@ForAll @StringLength(max = 60) String group) {
        // Group ids arrive as UTF-8 off the wire: a lone surrogate cannot be one.
        Assume.that(group.equals(new String(group.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)));
        assertThat(GroupOffsetsFile.groupOf(GroupOffsetsFile.fileName(group))).contains(group);
    }

    @Property(tries = 2000)
    void aNameTheStoreNeverWritesIsNoGroup(@ForAll @StringLength(max = 30) String name) {
        String file = name + ".json";
        GroupOffsetsFile.groupOf(file)
                .ifPresent(g -> assertThat(GroupOffsetsFile.fileName(g)).isEqualTo(file));
    }

    @Example
    void namesOfOtherShapesAreNoGroup() {
        assertThat(GroupOffsetsFile.groupOf("g%2f.json"))
                .as("lower-case hex: not what the store writes")
                .isEmpty();
        assertThat(GroupOffsetsFile.groupOf("g%2.json")).isEmpty();
        assertThat(GroupOffsetsFile.groupOf("%FF.json")).as("not UTF-8").isEmpty();
        assertThat(GroupOffsetsFile.groupOf("g.json.tmp")).isEmpty();
        assertThat(GroupOffsetsFile.groupOf("a%2Fb.json")).contains("a/b");
    }
}

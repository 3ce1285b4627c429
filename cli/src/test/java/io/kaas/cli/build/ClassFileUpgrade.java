package io.kaas.cli.build;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * Build time only (cli/pom.xml, before the CDS archive is recorded): rewrites the class files of a jar in
 * lib/ that are older than Java 6 (version 50) as Java 8 ones with the stack-map frames they lacked, the
 * same bytecode otherwise. picocli ships Java 5 class files, and JDK 17 neither archives such classes in a
 * dynamic class-data-sharing archive nor verifies them the fast way, so every {@code kaas} command parsed
 * and verified ~180 picocli classes from the jar at start: ~90 ms of CPU for {@code kaas verify}. Other
 * class files, and every other entry, are copied unchanged, in their order. Single-threaded, run once.
 *
 * <pre>java -cp TEST_CLASSPATH io.kaas.cli.build.ClassFileUpgrade JAR...</pre>
 */
public final class ClassFileUpgrade {
    /** Class files below this major version have no stack-map frames (Java 6 made them optional, 7 required). */
    private static final int FIRST_WITH_FRAMES = Opcodes.V1_6;

    private ClassFileUpgrade() {}

    public static void main(String[] args) throws IOException {
        for (String jar : args) {
            int upgraded = upgrade(Path.of(jar));
            System.out.println(jar + ": " + upgraded + " class file(s) rewritten as Java 8 class files");
        }
    }

    /** Rewrites {@code jar} in place (through a temporary file renamed over it); returns the class files rewritten. */
    static int upgrade(Path jar) throws IOException {
        Path tmp = jar.resolveSibling(jar.getFileName() + ".upgrading");
        int upgraded = 0;
        // getCommonSuperClass (frame computation) loads the jar's classes, without initialising them.
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null);
                InputStream in = Files.newInputStream(jar);
                ZipInputStream zip = new ZipInputStream(in);
                OutputStream out = Files.newOutputStream(tmp);
                ZipOutputStream rewritten = new ZipOutputStream(out)) {
            for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                byte[] bytes = zip.readAllBytes();
                if (e.getName().endsWith(".class") && majorVersion(bytes) < FIRST_WITH_FRAMES) {
                    bytes = asJava8(bytes, loader);
                    upgraded++;
                }
                ZipEntry copy = new ZipEntry(e.getName());
                copy.setTime(e.getTime());
                rewritten.putNextEntry(copy);
                rewritten.write(bytes);
                rewritten.closeEntry();
            }
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING);
        return upgraded;
    }

    static int majorVersion(byte[] classFile) {
        return ((classFile[6] & 0xff) << 8) | (classFile[7] & 0xff);
    }

    private static byte[] asJava8(byte[] classFile, ClassLoader loader) {
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected ClassLoader getClassLoader() {
                return loader;
            }
        };
        new ClassReader(classFile)
                .accept(
                        new ClassVisitor(Opcodes.ASM9, writer) {
                            @Override
                            public void visit(
                                    int version,
                                    int access,
                                    String name,
                                    String signature,
                                    String superName,
                                    String[] interfaces) {
                                super.visit(Opcodes.V1_8, access, name, signature, superName, interfaces);
                            }
                        },
                        ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }
}

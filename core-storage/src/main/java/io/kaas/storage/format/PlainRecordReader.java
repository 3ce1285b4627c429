package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * {@link StateJson}'s fast path for reading: a state-file record decoded by its components over jackson-core's
 * streaming parser, without jackson-databind, whose set-up (the mapper, then each type's deserializer built
 * by reflection, interpreted) was most of a short {@code kaas verify}'s start. It reads only what it reads
 * exactly as databind does and is empty for anything else, where StateJson asks databind, which then gives
 * its own value or its own error message: a type with a Jackson annotation beyond
 * {@code @JsonProperty("name")}, {@code @JsonPropertyOrder} and {@code @JsonInclude} (which only writing
 * uses), a component not of {@code int}, {@code long}, {@code short}, {@code boolean}, their boxes,
 * {@code String}, {@code UUID} (its 8-4-4-4-12 form), a record, {@code List} or {@code Map<String, String>};
 * and a file that is not a well-formed object whose values have exactly those JSON types (no coercion), a
 * missing primitive, a duplicate key, or a record constructor that refuses the values. Unknown keys are skipped, as StateJson's
 * mapper does. Any thread: one parser per call; what it learns of a type (its {@link Shape}) is immutable.
 */
final class PlainRecordReader {
    private static final JsonFactory FACTORY = new JsonFactory();

    /** Thrown inside a read to give up to databind; never leaves this class. */
    private static final class NotPlain extends Exception {
        NotPlain() {
            super(null, null, false, false);
        }
    }

    private PlainRecordReader() {}

    /** {@code json} as a {@code type}, or empty when databind must decide (see the class comment). */
    static <T> Optional<T> read(byte[] json, Class<T> type) {
        if (!type.isRecord()) {
            return Optional.empty();
        }
        try (JsonParser parser = FACTORY.createParser(json)) {
            Object value = readValue(parser, parser.nextToken(), type);
            return Optional.of(type.cast(value));
        } catch (Exception e) {
            // NotPlain, a malformed document, a refusing constructor: databind reads it again and words it.
            return Optional.empty();
        }
    }

    private static Object readValue(JsonParser parser, JsonToken token, Type type) throws Exception {
        if (token == null) {
            throw new NotPlain();
        }
        if (type instanceof Class<?> c) {
            if (c.isRecord()) {
                return readRecord(parser, token, c);
            }
            return readScalar(parser, token, c);
        }
        if (type instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw) {
            Type[] args = p.getActualTypeArguments();
            if (raw == List.class && token == JsonToken.START_ARRAY) {
                List<Object> list = new ArrayList<>();
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
                    if (t == JsonToken.VALUE_NULL) {
                        throw new NotPlain();
                    }
                    list.add(readValue(parser, t, args[0]));
                }
                return list;
            }
            if (raw == Map.class && args[0] == String.class && args[1] == String.class) {
                return readStringMap(parser, token);
            }
        }
        throw new NotPlain();
    }

    private static Map<String, String> readStringMap(JsonParser parser, JsonToken token) throws Exception {
        if (token != JsonToken.START_OBJECT) {
            throw new NotPlain();
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (String key = parser.nextFieldName(); key != null; key = parser.nextFieldName()) {
            if (parser.nextToken() != JsonToken.VALUE_STRING || map.put(key, parser.getText()) != null) {
                throw new NotPlain();
            }
        }
        if (parser.currentToken() != JsonToken.END_OBJECT) {
            throw new NotPlain();
        }
        return map;
    }

    private static Object readScalar(JsonParser parser, JsonToken token, Class<?> c) throws Exception {
        if (token == JsonToken.VALUE_NULL && !c.isPrimitive()) {
            if (c == String.class
                    || c == UUID.class
                    || c == Long.class
                    || c == Integer.class
                    || c == Short.class
                    || c == Boolean.class) {
                return null;
            }
            throw new NotPlain();
        }
        if (c == String.class && token == JsonToken.VALUE_STRING) {
            return parser.getText();
        }
        if (c == UUID.class && token == JsonToken.VALUE_STRING && isCanonicalUuid(parser.getText())) {
            return UUID.fromString(parser.getText());
        }
        if ((c == boolean.class || c == Boolean.class)
                && (token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE)) {
            return token == JsonToken.VALUE_TRUE;
        }
        if (token == JsonToken.VALUE_NUMBER_INT) {
            JsonParser.NumberType n = parser.getNumberType();
            if ((c == long.class || c == Long.class) && n != JsonParser.NumberType.BIG_INTEGER) {
                return parser.getLongValue();
            }
            if ((c == int.class || c == Integer.class) && n == JsonParser.NumberType.INT) {
                return parser.getIntValue();
            }
            if ((c == short.class || c == Short.class) && n == JsonParser.NumberType.INT) {
                int v = parser.getIntValue();
                if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
                    return (short) v;
                }
            }
        }
        throw new NotPlain();
    }

    private static Object readRecord(JsonParser parser, JsonToken token, Class<?> type) throws Exception {
        Shape shape = SHAPES.get(type);
        if (token != JsonToken.START_OBJECT || shape == null) {
            throw new NotPlain();
        }
        Object[] values = new Object[shape.types.length];
        boolean[] seen = new boolean[shape.types.length];
        for (String key = parser.nextFieldName(); key != null; key = parser.nextFieldName()) {
            JsonToken value = parser.nextToken();
            Integer i = shape.byName.get(key);
            if (i == null) {
                parser.skipChildren(); // unknown: a newer writer's key
                continue;
            }
            if (seen[i]) {
                throw new NotPlain();
            }
            seen[i] = true;
            values[i] = readValue(parser, value, shape.types[i]);
        }
        if (parser.currentToken() != JsonToken.END_OBJECT) {
            throw new NotPlain();
        }
        for (int i = 0; i < shape.types.length; i++) {
            if (!seen[i] && shape.types[i] instanceof Class<?> c && c.isPrimitive()) {
                throw new NotPlain();
            }
        }
        return shape.canonical.newInstance(values);
    }

    /**
     * What reading a record type needs, worked out once per type (annotations are parsed, interpreted, at each
     * look-up): its canonical constructor, each component's JSON name and type. Absent for a type databind
     * must read (see the class comment). Immutable once built.
     */
    private record Shape(Constructor<?> canonical, Map<String, Integer> byName, Type[] types) {
        static Shape of(Class<?> type) throws ReflectiveOperationException, NotPlain {
            RecordComponent[] components = type.getRecordComponents();
            Class<?>[] raw = new Class<?>[components.length];
            Type[] types = new Type[components.length];
            for (int i = 0; i < components.length; i++) {
                raw[i] = components[i].getType();
                types[i] = components[i].getGenericType();
            }
            Constructor<?> canonical = type.getDeclaredConstructor(raw);
            requirePlain(type.getAnnotations());
            for (Constructor<?> other : type.getDeclaredConstructors()) {
                requirePlain(other.getAnnotations());
            }
            for (Method m : type.getDeclaredMethods()) {
                // @JsonIgnore on a derived getter only keeps it out of the file; anything else may feed reading.
                if (isAccessor(m, components) || !m.isAnnotationPresent(JsonIgnore.class)) {
                    requirePlain(m.getAnnotations());
                }
            }
            Map<String, Integer> byName = new HashMap<>();
            Parameter[] parameters = canonical.getParameters();
            for (int i = 0; i < components.length; i++) {
                requirePlain(parameters[i].getAnnotations());
                JsonProperty renamed = parameters[i].getAnnotation(JsonProperty.class);
                String name = renamed != null && !renamed.value().isEmpty() ? renamed.value() : components[i].getName();
                byName.put(name, i);
            }
            canonical.setAccessible(true);
            return new Shape(canonical, Map.copyOf(byName), types);
        }

        private static boolean isAccessor(Method m, RecordComponent[] components) {
            if (m.getParameterCount() == 0) {
                for (RecordComponent c : components) {
                    if (c.getName().equals(m.getName())) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    /** Each record type's {@link Shape}, or null for one databind must read. */
    private static final ClassValue<Shape> SHAPES = new ClassValue<>() {
        @Override
        protected Shape computeValue(Class<?> type) {
            try {
                return Shape.of(type);
            } catch (ReflectiveOperationException | NotPlain | RuntimeException e) {
                return null;
            }
        }
    };

    /** The 8-4-4-4-12 hex form, the one databind reads as {@link UUID#fromString} does (which takes shorter groups too). */
    private static boolean isCanonicalUuid(String s) {
        if (s.length() != 36) {
            return false;
        }
        for (int i = 0; i < 36; i++) {
            char ch = s.charAt(i);
            boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
            boolean hex = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
            if (dash ? ch != '-' : !hex) {
                return false;
            }
        }
        return true;
    }

    /** Only the annotations that do not change how databind reads: else databind decides. */
    private static void requirePlain(Annotation[] annotations) throws NotPlain {
        for (Annotation a : annotations) {
            Class<? extends Annotation> t = a.annotationType();
            if (t == JsonProperty.class) {
                JsonProperty p = (JsonProperty) a;
                if (p.access() != JsonProperty.Access.AUTO
                        || p.required()
                        || !p.defaultValue().isEmpty()) {
                    throw new NotPlain();
                }
            } else if (t != JsonPropertyOrder.class
                    && t != JsonInclude.class
                    && t.getPackageName().startsWith("com.fasterxml.jackson")) {
                throw new NotPlain();
            }
        }
    }
}

package dev.idemlab.idempotency.testsupport;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import javax.net.ssl.SSLSocketFactory;

/**
 * One connection that speaks just enough RESP for what test-support asks a server (PING, INFO, AUTH,
 * SELECT, SCAN, DEL), so that this module needs no Redis client. Not thread-safe.
 */
final class RespConnection implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RespConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /**
     * Connects to {@code host:port}, over TLS when {@code tls} is set.
     *
     * @throws IOException if nothing accepts the connection within {@code connectMillis}
     */
    static RespConnection open(String host, int port, boolean tls, int connectMillis, int readMillis) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), connectMillis);
            socket.setSoTimeout(readMillis);
            if (tls) {
                socket = ((SSLSocketFactory) SSLSocketFactory.getDefault()).createSocket(socket, host, port, true);
            }
            return new RespConnection(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Sends one command and reads its reply: a {@code String} (simple or bulk), a {@code Long}, a
     * {@code List} of replies, or {@code null}.
     *
     * @throws ErrorReply if the server answered with an error
     * @throws IOException if the connection failed or the reply is not RESP
     */
    Object command(String... arguments) throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("*" + arguments.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String argument : arguments) {
            byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
            request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            request.writeBytes(bytes);
            request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write(request.toByteArray());
        out.flush();
        return reply();
    }

    /** The value of {@code field} in the text of an {@code INFO} reply, if it is there. */
    static Optional<String> infoField(Object info, String field) {
        if (!(info instanceof String text)) {
            return Optional.empty();
        }
        for (String line : text.split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return Optional.of(line.substring(field.length() + 1).strip());
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private Object reply() throws IOException {
        int type = in.read();
        if (type == -1) {
            throw new IOException("connection closed before a reply");
        }
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                if (bytes.length != length + 2) {
                    throw new IOException("connection closed within a reply");
                }
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(reply());
                }
                return items;
            }
            default:
                throw new IOException("not a RESP reply: " + (char) type + line);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int next = in.read();
            if (next == -1) {
                throw new IOException("connection closed within a reply");
            }
            if (previous == '\r' && next == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(next);
            previous = next;
        }
    }

    /** The server answered with an error ({@code -ERR ...}, {@code -NOAUTH ...}). */
    static final class ErrorReply extends IOException {
        ErrorReply(String message) {
            super(message);
        }
    }
}

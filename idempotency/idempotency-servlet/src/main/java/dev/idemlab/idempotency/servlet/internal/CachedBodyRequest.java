package dev.idemlab.idempotency.servlet.internal;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A request whose body the filter has already read (to fingerprint it), handed on so that the
 * application reads the same bytes. Form parameters of a url-encoded body are not re-parsed from
 * it: a guarded route takes its input from the body. Used by one request thread.
 */
public final class CachedBodyRequest extends HttpServletRequestWrapper {

    /** What a body of unknown length is read in first: most bodies of an idempotent route are small. */
    private static final int UNKNOWN_LENGTH_FIRST_READ = 1024;
    /**
     * The longest declared length allocated before its bytes arrive: a client that declares a large body
     * and sends nothing must not make the filter hold the whole limit; longer bodies are read as they come.
     */
    private static final int PREALLOCATED_AT_MOST = 64 * 1024;

    private final byte[] body;

    public CachedBodyRequest(HttpServletRequest request, byte[] body) {
        super(request);
        this.body = body;
    }

    /** The body as read. */
    public byte[] body() {
        return body;
    }

    @Override
    public ServletInputStream getInputStream() {
        ByteArrayInputStream in = new ByteArrayInputStream(body);
        return new ServletInputStream() {
            @Override
            public boolean isFinished() {
                return in.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {
                throw new IllegalStateException("the idempotency filter has read the body already: read it blocking");
            }

            @Override
            public int read() {
                return in.read();
            }

            @Override
            public int read(byte[] buffer, int offset, int length) {
                return in.read(buffer, offset, length);
            }
        };
    }

    @Override
    public BufferedReader getReader() {
        String encoding = getCharacterEncoding();
        Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
        return new BufferedReader(new InputStreamReader(getInputStream(), charset));
    }

    @Override
    public int getContentLength() {
        return body.length;
    }

    @Override
    public long getContentLengthLong() {
        return body.length;
    }

    /**
     * Reads at most {@code limit + 1} bytes of the request's body.
     *
     * <p>A body that declares a length within the limit (up to 64 KiB) is read into an array of exactly
     * that length, then one more read confirms its end: {@code InputStream.readNBytes(limit + 1)} allocated an 8 KiB
     * buffer per pass, two passes for the smallest body, then copied the bytes out, and that was a quarter
     * of what a replayed request allocated. A body of unknown or larger length, or one that turns out longer
     * than it said, is read in growing chunks up to the limit.
     *
     * @return the body, or {@code null} if it is longer than {@code limit}
     */
    public static byte[] read(HttpServletRequest request, int limit) throws IOException {
        InputStream in = request.getInputStream();
        long declared = request.getContentLengthLong();
        if (declared > limit) {
            return null;
        }
        if (declared >= 0 && declared <= PREALLOCATED_AT_MOST) {
            byte[] body = new byte[(int) declared];
            int read = in.readNBytes(body, 0, body.length);
            if (read < body.length) {
                return Arrays.copyOf(body, read);
            }
            int next = in.read();
            if (next < 0) {
                return body;
            }
            return readRest(in, body, next, limit);
        }
        int first = Math.min(UNKNOWN_LENGTH_FIRST_READ, limit + 1);
        byte[] body = in.readNBytes(first);
        if (body.length < first) {
            return body;
        }
        return body.length > limit ? null : readRest(in, body, -1, limit);
    }

    /** The rest of a body whose first {@code head} bytes (and then {@code next}, if not -1) are read. */
    private static byte[] readRest(InputStream in, byte[] head, int next, int limit) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(Math.max(32, head.length * 2));
        body.write(head, 0, head.length);
        if (next >= 0) {
            body.write(next);
        }
        int room = limit + 1 - body.size();
        if (room > 0) {
            body.write(in.readNBytes(room));
        }
        return body.size() > limit ? null : body.toByteArray();
    }
}

package dev.idemlab.idempotency.servlet.internal;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Holds the application's response body back (as Spring's {@code ContentCachingResponseWrapper}
 * does) so that the filter can store exactly the bytes the first caller gets, and decide whether to
 * store them at all before anything is committed. Status and headers go to the real response as they
 * are set; nothing is committed until {@link #copyBodyToResponse()}. {@code sendError} sets the status
 * and leaves the body empty, so that what is stored is what is sent. Used by one request thread.
 */
public final class ResponseCapture extends HttpServletResponseWrapper {

    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private ServletOutputStream stream;
    private PrintWriter writer;

    public ResponseCapture(HttpServletResponse response) {
        super(response);
    }

    @Override
    public ServletOutputStream getOutputStream() {
        if (writer != null) {
            throw new IllegalStateException("getWriter() was already called for this response");
        }
        if (stream == null) {
            stream = new ServletOutputStream() {
                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(WriteListener listener) {
                    throw new IllegalStateException("the idempotency filter captures the response: write it blocking");
                }

                @Override
                public void write(int b) {
                    body.write(b);
                }

                @Override
                public void write(byte[] bytes, int offset, int length) {
                    body.write(bytes, offset, length);
                }
            };
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() {
        if (stream != null) {
            throw new IllegalStateException("getOutputStream() was already called for this response");
        }
        if (writer == null) {
            String encoding = getCharacterEncoding();
            Charset charset = encoding == null ? StandardCharsets.ISO_8859_1 : Charset.forName(encoding);
            writer = new PrintWriter(new OutputStreamWriter(body, charset));
        }
        return writer;
    }

    @Override
    public void sendError(int status, String message) {
        sendError(status);
    }

    @Override
    public void sendError(int status) {
        resetBuffer();
        setStatus(status);
    }

    @Override
    public void sendRedirect(String location) {
        resetBuffer();
        setStatus(HttpServletResponse.SC_FOUND);
        setHeader("Location", location);
    }

    @Override
    public void setContentLength(int length) {
        // The filter sets the length of what it sends.
    }

    @Override
    public void setContentLengthLong(long length) {
        // The filter sets the length of what it sends.
    }

    @Override
    public void flushBuffer() {
        if (writer != null) {
            writer.flush();
        }
    }

    @Override
    public boolean isCommitted() {
        return false;
    }

    @Override
    public void resetBuffer() {
        flushBuffer();
        body.reset();
    }

    @Override
    public void reset() {
        super.reset();
        writer = null;
        stream = null;
        body.reset();
    }

    /** The response so far: its status, the named headers and the body. */
    public StoredResponse captured(List<String> headerNames) {
        flushBuffer();
        HttpServletResponse real = (HttpServletResponse) getResponse();
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String name : headerNames) {
            List<String> values = new ArrayList<>(real.getHeaders(name));
            if (values.isEmpty() && "content-type".equals(name.toLowerCase(Locale.ROOT)) && real.getContentType() != null) {
                values.add(real.getContentType());
            }
            if (!values.isEmpty()) {
                headers.put(name, values);
            }
        }
        return new StoredResponse(real.getStatus(), headers, body.toByteArray());
    }

    /** Sends the captured body on the real response, with its length. */
    public void copyBodyToResponse() throws IOException {
        flushBuffer();
        HttpServletResponse real = (HttpServletResponse) getResponse();
        real.setContentLength(body.size());
        body.writeTo(real.getOutputStream());
        real.flushBuffer();
    }
}

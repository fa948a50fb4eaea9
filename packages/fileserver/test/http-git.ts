import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';

/**
 * `git http-backend` (CGI) behind a tiny node HTTP server on 127.0.0.1 with Basic auth: a real
 * smart-HTTP git remote that wants a password; `url` + `/NAME.git` is the repository NAME.git of `root`.
 */
export async function httpGit(root: string, user: string, password: string): Promise<{ url: string; server: Server }> {
  const want = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const server = createServer((req, res) => {
    if (req.headers.authorization !== want) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const u = new URL(req.url ?? '/', 'http://x');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: u.pathname,
        QUERY_STRING: u.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_USER: user,
      },
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (d: Buffer) => chunks.push(d));
    cgi.on('close', () => {
      const out = Buffer.concat(chunks);
      const end = out.indexOf('\r\n\r\n');
      const head = out.subarray(0, end).toString().split('\r\n');
      let status = 200;
      for (const line of head) {
        const [k, ...v] = line.split(':');
        if (k!.toLowerCase() === 'status') status = Number(v.join(':').trim().split(' ')[0]);
        else res.setHeader(k!, v.join(':').trim());
      }
      res.writeHead(status).end(out.subarray(end + 4));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server };
}

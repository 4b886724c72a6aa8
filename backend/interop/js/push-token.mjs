// Asks the official @a2a-js/sdk which HTTP header carries a push config's token: its own
// DefaultPushNotificationSender (the SDK's server side) sends one v1.0 notification with the token
// "probe" to a webhook here, and this prints the name of the header the token arrived in, as
// {"tokenHeader": "..."}. The JS SDK has no receiving side, so its sender's convention is what a
// webhook written with it expects. Run by ../push_token_test.go.

import http from 'node:http';

import { TaskState } from '@a2a-js/sdk';
import { DefaultPushNotificationSender } from '@a2a-js/sdk/server';

const PROBE = 'probe-token';

const got = new Promise((resolve) => {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      server.close();
      resolve(Object.entries(req.headers).find(([, v]) => v === PROBE)?.[0] ?? '');
    });
  });
  server.listen(0, '127.0.0.1', async () => {
    const url = `http://127.0.0.1:${server.address().port}/hook`;
    const store = { load: async () => [{ id: 'probe', url, token: PROBE }] };
    const sender = new DefaultPushNotificationSender(store);
    await sender.send(
      {
        payload: {
          $case: 'statusUpdate',
          value: { taskId: 'task-1', contextId: 'ctx-1', status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined }, metadata: undefined },
        },
      },
      { requestedVersion: '1.0' },
    );
  });
});

const header = await Promise.race([got, new Promise((_, reject) => setTimeout(() => reject(new Error('no notification within 20 s')), 20_000))]);
console.log(JSON.stringify({ tokenHeader: header }));
process.exit(0); // the timeout above would keep node alive

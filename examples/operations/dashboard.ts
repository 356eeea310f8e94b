import { Dashboard } from 'rocketmq-ts/dashboard';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';

// port 0 picks a free port; 8080 is the CLI's default. Listens on 127.0.0.1 unless `host` says otherwise.
const dashboard = new Dashboard({ namesrvAddr, port: 0 }); // or { admin } to share an Admin client
const url = await dashboard.start();
const page = await fetch(url);
console.log(url, page.status);
await dashboard.close();

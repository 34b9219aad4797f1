import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { startSmtpServer } from '../helpers/smtp.js';
import { useTestApp } from '../helpers/test-app.js';
import { createMailQueue, mailRepository } from '../../src/modules/mail/index.js';

const getApp = useTestApp();

describe('the mail queue and the test SMTP server', () => {
  it('queues a mail in a transaction with a Message-ID of its own; a rolled-back one is not kept', async () => {
    const { database, clock } = getApp();
    const repo = mailRepository();
    const queue = createMailQueue({ repo, clock, from: 'Service <no-reply@example.test>' });
    const id = await database.db
      .transaction()
      .execute((tx) => queue.enqueue(tx, { to: 'a@example.test', subject: 'Hi\r\nBcc: x', text: 't', html: '<p>t</p>', category: 'test' }));
    const row = await repo.findMail(database.db, id);
    expect(row).toMatchObject({ status: 'pending', to_address: 'a@example.test', subject: 'Hi Bcc: x', message_id: `<${id}@example.test>` });
    await expect(
      database.db.transaction().execute(async (tx) => {
        await queue.enqueue(tx, { to: 'b@example.test', subject: 's', text: 't', html: 'h', category: 'test' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const { rows } = await repo.listMails(database.db, undefined, 0, 100);
    expect(rows.map((r) => r.to_address)).toEqual(['a@example.test']);
  });

  it('the SMTP helper accepts, refuses and goes down', async () => {
    const smtp = await startSmtpServer();
    try {
      const transport = nodemailer.createTransport(smtp.url);
      await transport.sendMail({
        from: 'a@example.test',
        to: 'b@example.test',
        subject: 'one',
        text: 'hello',
        html: '<b>hello</b>',
        messageId: '<m1@example.test>',
      });
      expect(smtp.messages[0]).toMatchObject({ messageId: '<m1@example.test>', subject: 'one', html: '<b>hello</b>' });
      smtp.fail({ code: 550, times: 1 });
      await expect(transport.sendMail({ from: 'a@example.test', to: 'b@example.test', subject: 'two', text: 'x' })).rejects.toMatchObject({
        responseCode: 550,
      });
      await smtp.down();
      await expect(transport.sendMail({ from: 'a@example.test', to: 'b@example.test', subject: 'three', text: 'x' })).rejects.toMatchObject({
        code: 'ESOCKET',
      });
      await smtp.up();
      await transport.sendMail({ from: 'a@example.test', to: 'b@example.test', subject: 'four', text: 'x' });
      expect(smtp.messages.map((m) => m.subject)).toEqual(['one', 'four']);
      transport.close();
    } finally {
      await smtp.close();
    }
  });
});
